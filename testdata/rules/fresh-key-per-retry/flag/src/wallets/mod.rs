//! Wallet connector: the header names live in one module of constants.

pub mod headers {
    pub const CONTENT_TYPE: &str = "Content-Type";
    pub const PAYPAL_REQUEST_ID: &str = "PayPal-Request-Id";
}

pub mod orders;
