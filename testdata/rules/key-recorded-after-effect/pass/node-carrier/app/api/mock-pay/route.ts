import { NextResponse } from "next/server";
import { prisma } from "@/lib/db";

// Marks a transfer paid. The transfer row was created, with its key, by the
// route that accepted the request; this one only moves its status, and does
// so in one transaction with the payout's.
export async function POST(req: Request) {
  const { transferId } = (await req.json()) as { transferId: string };
  const transfer = await prisma.transfer.findUnique({
    where: { id: transferId },
    include: { payout: true },
  });
  if (!transfer?.payout || transfer.status !== "READY") {
    return NextResponse.json({ error: "not ready" }, { status: 409 });
  }
  await prisma.$transaction([
    prisma.payout.update({ where: { id: transfer.payout.id }, data: { status: "PAID" } }),
    prisma.transfer.update({ where: { id: transferId }, data: { status: "COMPLETED" } }),
  ]);
  return NextResponse.json({ ok: true });
}
