DROP TABLE payment_dedup;
