alter table sync_entries
    add constraint sync_entries_slot_key unique (account_id, device, channel, seq);
