-- A replayed key finds the entry the first request logged.
create unique index postings_log_ik on postings_log (ledger, idempotency_key);
