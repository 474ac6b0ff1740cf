def record(conn, reference, kind):
    with conn.cursor() as cur:
        cur.execute(
            "INSERT INTO processed_deliveries (psp_reference, event_code) VALUES (%s, %s) "
            "ON CONFLICT (psp_reference) DO NOTHING",
            (reference, kind),
        )
