pub mod stripe;
