-- The window is the caller's: nothing here says how long it is.
CREATE OR REPLACE FUNCTION purge_processed_stripe_events(keep_days integer)
RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM processed_stripe_events
   WHERE received_at < now() - interval '1 day' * keep_days;
END;
$fn$;
