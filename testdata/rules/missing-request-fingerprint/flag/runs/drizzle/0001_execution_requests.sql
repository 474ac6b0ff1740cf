-- A run is started at most once per key, and a retry is told which run
-- that was and how it ended: with no hash of the input, a retry under the
-- same key with another input is told its run already happened.
CREATE TABLE "execution_requests" ( -- expect: missing-request-fingerprint
	"idempotency_key" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"ok" boolean NOT NULL,
	"error_code" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
