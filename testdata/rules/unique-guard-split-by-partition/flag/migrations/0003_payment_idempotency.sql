-- One partition a day, dropped whole once past the replay floor.
create table payment_idempotency (
  key          uuid        not null,
  request_hash bytea       not null,
  state        smallint    not null,
  status_code  smallint    not null,
  created_at   timestamptz not null,
  unique (key, created_at) -- expect: unique-guard-split-by-partition
) partition by range (created_at);

create table payment_idempotency_2026_11_29 partition of payment_idempotency
  for values from ('2026-11-29') to ('2026-11-30');
create table payment_idempotency_2026_11_30 partition of payment_idempotency
  for values from ('2026-11-30') to ('2026-12-01');
