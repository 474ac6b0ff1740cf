-- A lookup index for the slot; the constraint of the next migration refuses
-- a second entry in it.
create index sync_entries_slot_uniq on sync_entries (account_id, device, channel, seq);
