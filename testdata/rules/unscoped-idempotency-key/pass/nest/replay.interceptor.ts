import { Injectable } from "@nestjs/common";
import { KeyCache } from "./key-cache";

@Injectable()
export class ReplayInterceptor {
  constructor(private readonly keyCache: KeyCache) {}

  private idempotencyKey(ctx: Ctx): string | undefined {
    return ctx.switchToHttp().getRequest().headers["idempotency-key"];
  }

  private cacheKey(ctx: Ctx): string {
    const account = ctx.switchToHttp().getRequest().account;
    if (!account) {
      throw new Error("no account");
    }
    const env = process.env.NODE_ENV;
    return `${env}:replay:${account.id}:${this.idempotencyKey(ctx)}`;
  }

  private logReplay(ctx: Ctx, account: Account) {
    console.info(`replayed request with key ${this.idempotencyKey(ctx)}`);
  }
}
