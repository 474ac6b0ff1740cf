-- A POST with an Idempotency-Key is answered with the log entry it wrote,
-- after its body's hash is compared with the first request's.
alter table entries_log
add column idempotency_hash bytea;

create unique index entries_log_ik on entries_log (ledger, idempotency_key);
