// Cloudflare Worker: the idempotency records live in a KV namespace, replays
// of failed webhooks go through a queue.
export interface Env {
  IDEMPOTENCY: KVNamespace;
  REPLAYS: Queue;
}

const KV_NAMESPACE = "idempotency-kv";
const REPLAY_QUEUE = "idempotency-replay";

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const key = request.headers.get("Idempotency-Key");
    if (!key) return new Response("missing Idempotency-Key", { status: 400 });
    const seen = await env.IDEMPOTENCY.get(key);
    if (seen) {
      return new Response(seen, { headers: { "Idempotent-Replayed": "true" } });
    }
    console.log(`stored in ${KV_NAMESPACE}, replays via ${REPLAY_QUEUE}`);
    return new Response("ok");
  },
};
