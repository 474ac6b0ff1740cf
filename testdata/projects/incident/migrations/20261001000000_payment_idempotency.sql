-- Request keys for the payment API: the key, a digest of the request, the
-- claim's state and the stored status code.
create table payment_idempotency (
  key          uuid        not null,
  request_hash bytea       not null,
  state        smallint    not null,
  status_code  smallint    not null,
  created_at   timestamptz not null,
  primary key (key)
);
