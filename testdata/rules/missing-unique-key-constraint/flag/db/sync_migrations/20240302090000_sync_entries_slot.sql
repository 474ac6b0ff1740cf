-- The slot index: one entry per device, channel and sequence number.
create index sync_entries_slot_uniq on sync_entries (account_id, device, channel, seq); -- expect: missing-unique-key-constraint
