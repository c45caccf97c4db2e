import * as fs from 'node:fs';
import * as path from 'node:path';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';

/** Paths the SPA never answers: the API, the event stream and the inbox websocket. */
const SERVER_PATHS = /^\/(api|realtime|ws)(\/|$)/;
/** Vite puts content-hashed files under /assets: they never change under the same name. */
const HASHED = /^\/assets\//;

/**
 * Serves the admin build: static files (hashed assets cached for a year, the rest revalidated), and index.html
 * (never cached, so a deploy is picked up at once) for any other GET that is not the API, so client-side routes
 * such as /campaigns/5 load the app. A missing file with an extension stays a 404 rather than HTML.
 */
export function adminStaticHandler(distDir: string): RequestHandler {
  const root = path.resolve(distDir);
  const index = path.join(root, 'index.html');
  const files = express.static(root, {
    index: false,
    fallthrough: true,
    redirect: false,
    setHeaders: (res, file) => {
      const rel = `/${path.relative(root, file).split(path.sep).join('/')}`;
      res.setHeader('Cache-Control', HASHED.test(rel) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });

  const serveIndex = (res: Response, next: NextFunction) => {
    if (!fs.existsSync(index)) {
      res.status(404).type('text/plain').send(`The admin build is missing: no index.html in ${root}. Build it with npm run build.`);
      return;
    }
    res.setHeader('Cache-Control', 'no-cache, no-store, must-revalidate');
    res.sendFile(index, (err) => {
      if (err && !res.headersSent) next(err);
    });
  };

  return (req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || SERVER_PATHS.test(req.path)) return next();
    if (req.path === '/' || req.path === '/index.html') return serveIndex(res, next);
    files(req, res, (err?: unknown) => {
      if (err) return next(err);
      if (path.posix.extname(req.path)) return next();
      serveIndex(res, next);
    });
  };
}
