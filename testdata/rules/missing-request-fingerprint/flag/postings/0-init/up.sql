-- An append-only log of the postings each ledger accepted, chained by hash.
-- A POST with an Idempotency-Key is answered with the entry it logged.
create table postings_log -- expect: missing-request-fingerprint
(
    seq             bigserial primary key,
    ledger          varchar   not null,
    id              numeric   not null,
    kind            varchar   not null,
    hash            bytea     not null,
    date            timestamp not null,
    data            jsonb     not null,
    idempotency_key varchar(255)
);

create unique index postings_log_ledger_id on postings_log (ledger, id);
