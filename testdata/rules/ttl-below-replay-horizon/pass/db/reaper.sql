-- The retention is a parameter scaled by a one-day interval: the `'1 day'`
-- literal is the unit, not the retention, so nothing is read from it.
CREATE OR REPLACE FUNCTION reap_processed_stripe_events(retention_days integer DEFAULT 40)
RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
    reaped bigint;
BEGIN
    DELETE FROM processed_stripe_events WHERE received_at < now() - interval '1 day' * retention_days;
    GET DIAGNOSTICS reaped = ROW_COUNT;
    RETURN reaped;
END
$fn$;
