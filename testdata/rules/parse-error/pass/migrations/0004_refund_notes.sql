-- Notes on refunds (free text may hold "(" or ")").
CREATE TABLE refund_notes (
    refund_id TEXT NOT NULL, -- the refund (see refunds.id
    body TEXT NOT NULL DEFAULT ')',
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE FUNCTION refund_note_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.body := NEW.body || ' (edited';
  RETURN NEW;
END $$;
