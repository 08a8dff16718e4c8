// The route table's matcher: a path pattern with typed {params} per method, reporting 404 and 405.
import type { Handler } from './types.js';

export interface RouteSpec {
  GET?: Handler;
  POST?: Handler;
  PATCH?: Handler;
  PUT?: Handler;
  DELETE?: Handler;
}

/** A view module's routes: path pattern and the handler of each method. */
export type RouteList = [pattern: string, methods: RouteSpec][];

interface Compiled {
  /** `rest`: the last parameter takes every remaining segment, slashes included ({name:path}). */
  segments: { literal?: string; param?: string; int?: boolean; rest?: boolean }[];
  methods: RouteSpec;
  /** As given to add() (what request logs and metrics name the route by). */
  pattern: string;
}

export type RouteMatch =
  | { kind: 'found'; handler: Handler; pathParams: Record<string, string>; pattern: string }
  | { kind: 'method'; allowed: string[] }
  | { kind: 'none' };

/**
 * First segment under which the server routes the few paths it serves outside /api/v1 (uploaded
 * files). It holds a space, which a request path cannot contain unencoded (literals are compared
 * before decoding), so no /api/v1 URL can reach those routes.
 */
export const NON_API_ROUTE = ' web';

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const DIGITS = /^\d+$/;

export class Router {
  private readonly routes: Compiled[] = [];
  /**
   * Routes by first path segment, each list in table order (routes whose first segment is a
   * parameter are in every list, and in `anyFirst`), so a request only tries routes that can match.
   */
  private byFirst: Map<string, Compiled[]> | null = null;
  private anyFirst: Compiled[] = [];

  /** Pattern like "messages/{message_id:int}/reactions"; earlier routes win on ambiguity. */
  add(pattern: string, methods: RouteSpec): this {
    const segments = pattern.split('/').map((s) => {
      const m = /^\{(\w+)(:int|:path)?\}$/.exec(s);
      return m ? { param: m[1], int: m[2] === ':int', rest: m[2] === ':path' } : { literal: s };
    });
    this.routes.push({ segments, methods, pattern });
    this.byFirst = null;
    return this;
  }

  private index(): Map<string, Compiled[]> {
    const byFirst = new Map<string, Compiled[]>();
    for (const r of this.routes) {
      const first = r.segments[0].literal;
      if (first !== undefined && !byFirst.has(first)) byFirst.set(first, []);
    }
    this.anyFirst = this.routes.filter((r) => r.segments[0].literal === undefined);
    for (const r of this.routes) {
      const first = r.segments[0].literal;
      for (const [key, list] of byFirst) if (first === undefined || first === key) list.push(r);
    }
    return (this.byFirst = byFirst);
  }

  match(method: string, path: string): RouteMatch {
    const parts = path.split('/');
    const candidates = (this.byFirst ?? this.index()).get(parts[0]) ?? this.anyFirst;
    let allowed: string[] | null = null;
    for (const r of candidates) {
      const rest = r.segments[r.segments.length - 1].rest === true;
      if (rest ? parts.length < r.segments.length : r.segments.length !== parts.length) continue;
      let pathParams = NO_PARAMS;
      let ok = true;
      for (let i = 0; i < r.segments.length && ok; i++) {
        const seg = r.segments[i];
        const part = seg.rest ? parts.slice(i).join('/') : parts[i];
        if (seg.literal !== undefined) ok = seg.literal === part;
        else if (seg.int) ok = DIGITS.test(part);
        else ok = part.length > 0;
        if (ok && seg.param) {
          try {
            if (pathParams === NO_PARAMS) pathParams = {};
            pathParams[seg.param] = decodeURIComponent(part);
          } catch {
            ok = false;
          }
        }
      }
      if (!ok) continue;
      const handler = r.methods[method as keyof RouteSpec];
      if (handler) return { kind: 'found', handler, pathParams, pattern: r.pattern };
      // Several entries may share a path with different methods: a 405 lists every one's.
      if (allowed === null) allowed = Object.keys(r.methods);
      else for (const m of Object.keys(r.methods)) if (!allowed.includes(m)) allowed.push(m);
    }
    return allowed ? { kind: 'method', allowed } : { kind: 'none' };
  }
}
