// The admin app only previews a transfer; it sends nothing.
export async function sendPayout(iban: string, amountCents: number) {
  return { iban, amountCents, preview: true };
}
