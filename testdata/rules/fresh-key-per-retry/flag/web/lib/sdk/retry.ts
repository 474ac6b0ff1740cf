// The SDK's HTTP client: POSTs carry a key; axios-retry resends the config.
import { AxiosInstance } from "axios";
import axiosRetry from "axios-retry";
import { v4 as uuid } from "uuid";

const IDEMPOTENCY_HEADER = "Idempotency-Key";

export function withRetries(client: AxiosInstance) {
  axiosRetry(client, {
    retries: 3,
    onRetry(_count, error, config) {
      if (error.response && config.headers && config.method === "post") {
        config.headers[IDEMPOTENCY_HEADER] = uuid(); // expect: fresh-key-per-retry
      }
    },
  });
}
