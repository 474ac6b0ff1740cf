export async function recordPayoutRequest(key: string, response: unknown) {
  console.info("admin preview", key, response);
}
