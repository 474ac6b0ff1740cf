mod client;

pub use client::PspClient;
