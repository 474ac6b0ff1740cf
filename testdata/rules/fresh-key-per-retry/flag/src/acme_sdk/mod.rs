pub mod client;
pub mod strategy;
