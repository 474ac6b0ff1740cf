pub mod payouts;
