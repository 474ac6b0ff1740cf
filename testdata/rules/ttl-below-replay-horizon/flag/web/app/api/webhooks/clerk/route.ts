import { Webhook } from "svix";
import { kv } from "@vercel/kv";

type ClerkEvent = { type: string; data: { id: string } };

const wh = new Webhook(process.env.CLERK_WEBHOOK_SIGNING_SECRET ?? "");

export async function POST(request: Request) {
  const payload = await request.text();
  const headers = {
    "svix-id": request.headers.get("svix-id") ?? "",
    "svix-timestamp": request.headers.get("svix-timestamp") ?? "",
    "svix-signature": request.headers.get("svix-signature") ?? "",
  };
  const msg = wh.verify(payload, headers) as ClerkEvent;
  const first = await kv.set(`clerk:msg:${headers["svix-id"]}`, 1, { nx: true, ex: 60 * 60 }); // expect: ttl-below-replay-horizon
  if (!first) return new Response("duplicate", { status: 200 });
  if (msg.type === "user.created") {
    // provision the account
  }
  return new Response("ok");
}
