-- A run is started at most once per key; a retry with another input under
-- the same key is refused by the input's hash.
CREATE TABLE "execution_requests" (
	"idempotency_key" text PRIMARY KEY NOT NULL,
	"request_hash" text NOT NULL,
	"run_id" text NOT NULL,
	"ok" boolean NOT NULL,
	"error_code" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);

-- Only remembers that a key was seen: nothing to replay.
CREATE TABLE "seen_keys" (
	"idempotency_key" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
