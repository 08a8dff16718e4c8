// The route table's matcher: a path pattern with typed {params} per method, reporting 404 and 405.
import type { Handler } from './types.js';

export interface RouteSpec {
  GET?: Handler;
  POST?: Handler;
  PATCH?: Handler;
  PUT?: Handler;
  DELETE?: Handler;
}

interface Compiled {
  segments: { literal?: string; param?: string; int?: boolean }[];
  methods: RouteSpec;
}

export type RouteMatch =
  | { kind: 'found'; handler: Handler; pathParams: Record<string, string> }
  | { kind: 'method'; allowed: string[] }
  | { kind: 'none' };

export class Router {
  private readonly routes: Compiled[] = [];

  /** Pattern like "messages/{message_id:int}/reactions"; earlier routes win on ambiguity. */
  add(pattern: string, methods: RouteSpec): this {
    const segments = pattern.split('/').map((s) => {
      const m = /^\{(\w+)(:int)?\}$/.exec(s);
      return m ? { param: m[1], int: m[2] === ':int' } : { literal: s };
    });
    this.routes.push({ segments, methods });
    return this;
  }

  match(method: string, path: string): RouteMatch {
    const parts = path.split('/');
    let allowed: string[] | null = null;
    for (const r of this.routes) {
      if (r.segments.length !== parts.length) continue;
      const pathParams: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const seg = r.segments[i];
        if (seg.literal !== undefined) ok = seg.literal === parts[i];
        else if (seg.int) ok = /^\d+$/.test(parts[i]);
        else ok = parts[i].length > 0;
        if (ok && seg.param) {
          try {
            pathParams[seg.param] = decodeURIComponent(parts[i]);
          } catch {
            ok = false;
          }
        }
      }
      if (!ok) continue;
      const handler = r.methods[method as keyof RouteSpec];
      if (handler) return { kind: 'found', handler, pathParams };
      allowed ??= Object.keys(r.methods);
    }
    return allowed ? { kind: 'method', allowed } : { kind: 'none' };
  }
}
