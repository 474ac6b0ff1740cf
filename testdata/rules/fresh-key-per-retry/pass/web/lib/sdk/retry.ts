// The SDK's HTTP client: POSTs carry a key; axios-retry resends the config.
import { AxiosInstance } from "axios";
import axiosRetry from "axios-retry";
import { v4 as uuid } from "uuid";

const IDEMPOTENCY_HEADER = "Idempotency-Key";

export function withRetries(client: AxiosInstance) {
  // One key per request, made before the first attempt and kept by retries.
  client.interceptors.request.use((config) => {
    if (config.method === "post" && !config.headers[IDEMPOTENCY_HEADER]) {
      config.headers[IDEMPOTENCY_HEADER] = uuid();
    }
    return config;
  });
  axiosRetry(client, {
    retries: 3,
    onRetry(_count, error, config) {
      // The server rejected the key as reused with another payload.
      if (error.response?.status === 422 && config.headers) {
        config.headers[IDEMPOTENCY_HEADER] = uuid();
      }
    },
  });
}
