-- Entries each device uploads, numbered per device and channel; the server
-- skips an upload whose slot it already holds.
create table sync_entries (
    id uuid primary key,
    account_id bigint not null,
    device uuid not null,
    channel text not null,
    seq bigint not null,
    body text not null
);
