export async function sendPayout(iban: string, amountCents: number) {
  const res = await fetch("https://bank.example.com/v1/payouts", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ iban, amountCents }),
  });
  return res.json();
}
