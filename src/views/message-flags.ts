// Routes of this API area (filled in by its implementation).
import type { RouteList } from '../http/routes.js';

export const routes: RouteList = [];
