import { Injectable } from "@nestjs/common";
import { KeyCache } from "./key-cache";

@Injectable()
export class ReplayInterceptor {
  constructor(private readonly keyCache: KeyCache) {}

  private idempotencyKey(ctx: Ctx): string | undefined {
    return ctx.switchToHttp().getRequest().headers["idempotency-key"];
  }

  // The caller is fetched and checked, then left out of the key: two
  // accounts that send one Idempotency-Key share one cached response.
  private cacheKey(ctx: Ctx): string {
    const account = ctx.switchToHttp().getRequest().account; // expect: unscoped-idempotency-key
    if (!account) {
      throw new Error("no account");
    }
    const env = process.env.NODE_ENV;
    return `${env}:replay:${this.idempotencyKey(ctx)}`;
  }
}
