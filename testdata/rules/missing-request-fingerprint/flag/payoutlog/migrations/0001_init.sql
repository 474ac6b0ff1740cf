-- Payouts each account asked for, logged once per Idempotency-Key with a
-- fingerprint of the request.
create table payouts_log
(
    seq                 bigserial primary key,
    account_id          varchar   not null,
    data                jsonb     not null,
    idempotency_key     varchar(255),
    request_fingerprint varchar(64)
);

create unique index payouts_log_ik on payouts_log (account_id, idempotency_key);
