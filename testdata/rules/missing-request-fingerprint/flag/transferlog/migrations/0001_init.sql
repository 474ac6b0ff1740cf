-- A ledger's append-only log of transfers: a POST with an Idempotency-Key
-- is answered with the entry the first request logged.
create table transfers_log
(
    seq             bigserial primary key,
    ledger          varchar   not null,
    data            jsonb     not null,
    idempotency_key varchar(255),
    body_hash       varchar(64)
);

create unique index transfers_log_ik on transfers_log (ledger, idempotency_key);
