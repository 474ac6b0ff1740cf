-- postgres: skip (a retention job alone; its table is created by the migrations beside it, in another history)
-- The cut-off computed from the epoch: 259200 s is three days.
DELETE FROM processed_square_events -- expect: delete-based-expiry
 WHERE received_at < to_timestamp(extract(epoch from now()) - 259200); -- expect: ttl-below-replay-horizon
