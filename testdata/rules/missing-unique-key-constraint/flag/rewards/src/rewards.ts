import { prisma } from "./db";

// A sale event credits the partner once: a second delivery of the same
// event is refused by the unique guard on `eventId` and skipped.
export async function creditPartner(eventId: string, partnerId: string, amount: number) {
  try {
    return await prisma.reward.create({
      data: { eventId, partnerId, amount },
    });
  } catch (error: any) {
    if (error.code === "P2002") {
      return null; // already credited
    }
    throw error;
  }
}
