-- Deposits each account made, logged once per Idempotency-Key with a
-- digest of the request, compared on every replay.
create table deposits_log
(
    seq             bigserial primary key,
    account_id      varchar   not null,
    data            jsonb     not null,
    idempotency_key varchar(255),
    body_digest     bytea
);

create unique index deposits_log_ik on deposits_log (account_id, idempotency_key);
