import { prisma } from "./db";
import { redis } from "./redis";

const PART_DEDUPE_TTL_SECONDS = 60 * 60 * 24 * 40;

// The claim on the client's part id is taken before the append it guards;
// the channel's bookkeeping before it is other work, not what the key
// protects.
export async function claimPart(channelId: string, partId: string): Promise<boolean> {
  const result = await redis.set(`part-dedupe:${channelId}:${partId}`, "1", "EX", PART_DEDUPE_TTL_SECONDS, "NX");
  return result === "OK";
}

export async function POST(request: Request, channelId: string) {
  await prisma.channel.update({ where: { id: channelId }, data: { lastSeenAt: new Date() } });
  const partId = request.headers.get("X-Part-Id");
  const won = partId ? await claimPart(channelId, partId) : true;
  if (won) {
    await fetch(`${process.env.STREAMS_URL}/channels/${channelId}/records`, {
      method: "POST",
      body: await request.text(),
    });
  }
  return new Response(null, { status: 204 });
}
