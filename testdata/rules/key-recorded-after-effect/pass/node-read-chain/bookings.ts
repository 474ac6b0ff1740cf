import { PrismaClient } from "@prisma/client";
import { calendar } from "./calendar";

const prisma = new PrismaClient();

// The calendar call between the lookup and the record is a query built as
// a chain: the await waits on its last call, `.get()`, a read.
export async function bookSlot(key: string, requestHash: string, start: string, end: string) {
  const seen = await prisma.idempotencyKey.findUnique({ where: { key } });
  if (seen) {
    return seen.response;
  }
  const busy = await calendar
    .api("/me/calendarView")
    .query({ startDateTime: start, endDateTime: end })
    .select("start,end")
    .get();
  const response = { free: busy.value.length === 0 };
  await prisma.idempotencyKey.create({ data: { key, requestHash, response } });
  return response;
}
