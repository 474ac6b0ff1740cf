import base64
import hashlib
import hmac


def verify(item, key):
    signature = item["additionalData"]["hmacSignature"]
    payload = ":".join([item["pspReference"], item["originalReference"], item["merchantAccountCode"]])
    expected = base64.b64encode(hmac.new(bytes.fromhex(key), payload.encode(), hashlib.sha256).digest())
    return hmac.compare_digest(expected.decode(), signature)


def handle(conn, body, key):
    for wrapper in body["notificationItems"]:
        item = wrapper["NotificationRequestItem"]
        if not verify(item, key):
            continue
        with conn.cursor() as cur:
            cur.execute(
                """
                INSERT INTO processed_deliveries (psp_reference, event_code)
                VALUES (%s, %s)
                ON CONFLICT (psp_reference) DO NOTHING
                """,
                (item["pspReference"], item["eventCode"]),
            )
    return "[accepted]"
