/**
 * Dashboard sessions. A browser cannot send a bearer header, so an admin token presented
 * once is exchanged for a random session id that the browser keeps in an HttpOnly cookie:
 * the token itself never sits in a cookie, a URL or a log. Redis keeps only the sha256 of
 * the id and the principal it stands for, so every API process on that Redis honours the
 * cookie, a copy of Redis reveals no live cookie, and a session ends after SESSION_SECONDS
 * or as soon as its token is no longer configured.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { RedisClient } from '../shared/redis/connection.ts';
import type { Principal } from './auth.ts';

export const SESSION_SECONDS = 8 * 60 * 60;

interface StoredSession {
  name: string;
  sha256: string;
}

export class DashboardSessions {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  /** A new session for `principal`; the returned id goes to the browser and nowhere else. */
  async open(principal: Principal): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    const stored: StoredSession = { name: principal.name, sha256: principal.hash.toString('hex') };
    await this.redis.set(this.key(id), JSON.stringify(stored), 'EX', SESSION_SECONDS);
    return id;
  }

  /** The principal a session id stands for, while the session lives and its token is still configured. */
  async principal(id: string, principals: readonly Principal[]): Promise<Principal | undefined> {
    const raw = await this.redis.get(this.key(id));
    if (raw === null) return undefined;
    const stored = JSON.parse(raw) as StoredSession;
    const hash = Buffer.from(stored.sha256, 'hex');
    return principals.find(
      (p) => p.name === stored.name && p.hash.length === hash.length && timingSafeEqual(p.hash, hash),
    );
  }

  /** Under the `{dashboard}` hash tag, like every key family (README, Redis Cluster). */
  private key(id: string): string {
    return `${this.prefix}:{dashboard}:session:${createHash('sha256').update(id).digest('hex')}`;
  }
}
