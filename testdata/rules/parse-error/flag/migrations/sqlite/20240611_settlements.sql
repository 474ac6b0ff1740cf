-- postgres: skip (broken on purpose: an index never closed)
create table settlements (
  id text primary key,
  merchant_id text not null,
  period_start integer not null,
  amount_minor integer not null
);

create unique index settlements_period ON settlements(merchant_id, period_start; -- expect: parse-error
