-- Charges of every merchant in one log, one entry per merchant's
-- Idempotency-Key, with a hash of the request.
create table charges_log
(
    seq             bigserial primary key,
    merchant_id     varchar   not null,
    data            jsonb     not null,
    idempotency_key varchar(255),
    request_hash    varchar(64)
);

create unique index charges_log_ik on charges_log (merchant_id, idempotency_key);
