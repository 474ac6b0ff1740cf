-- An append-only ledger log; each entry is chained to the previous one by
-- its hash, and keeps the Idempotency-Key of the request that wrote it.
create table entries_log
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

create unique index entries_log_ledger on entries_log (ledger, id);
