// A headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages ended by a
// NUL byte on fds 3 and 4), so the browser tests need no driver package and no network port. Debian's `chromium`
// (apt-get install chromium; .ci/run installs it). Every event is kept, so a test can assert on console errors and
// on every request the page made.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";

export const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/chromium-headless-shell"].find((p) => existsSync(p)) ?? null;

export interface CdpEvent {
  method: string;
  params: any;
  sessionId?: string;
}

export class Browser {
  private id = 0;
  private buffer = "";
  private pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  readonly events: CdpEvent[] = [];
  private waiters: Array<{ method: string; resolve: (e: CdpEvent) => void }> = [];

  private constructor(
    private readonly child: ChildProcess,
    private readonly profile: string,
  ) {
    const out = child.stdio[4] as Readable;
    out.setEncoding("utf8");
    out.on("data", (chunk: string) => {
      this.buffer += chunk;
      let end: number;
      while ((end = this.buffer.indexOf("\0")) >= 0) {
        const msg = JSON.parse(this.buffer.slice(0, end));
        this.buffer = this.buffer.slice(end + 1);
        if (typeof msg.id === "number" && this.pending.has(msg.id)) {
          const p = this.pending.get(msg.id)!;
          this.pending.delete(msg.id);
          if (msg.error) p.reject(new Error(`${msg.error.message} (${JSON.stringify(msg.error.data ?? "")})`));
          else p.resolve(msg.result);
        } else if (msg.method) {
          const ev = { method: msg.method, params: msg.params, sessionId: msg.sessionId };
          this.events.push(ev);
          this.waiters = this.waiters.filter((w) => (w.method === ev.method ? (w.resolve(ev), false) : true));
        }
      }
    });
  }

  static launch(): Browser {
    if (!CHROMIUM) throw new Error("no Chromium: apt-get install chromium");
    const profile = mkdtempSync(join(tmpdir(), "do-chromium-"));
    const child = spawn(
      CHROMIUM,
      [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-extensions", "--hide-scrollbars", "--mute-audio",
        `--user-data-dir=${profile}`, "--remote-debugging-pipe", "about:blank",
      ],
      { stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"] },
    );
    return new Browser(child, profile);
  }

  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<any> {
    const id = ++this.id;
    const msg = JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) });
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      (this.child.stdio[3] as Writable).write(`${msg}\0`);
    });
  }

  /** The next event of that name (or one already seen since `from`). */
  waitFor(method: string, from = 0, timeoutMs = 30_000): Promise<CdpEvent> {
    const seen = this.events.slice(from).find((e) => e.method === method);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${method}`)), timeoutMs);
      this.waiters.push({ method, resolve: (e) => (clearTimeout(timer), resolve(e)) });
    });
  }

  /** A new page (its own session) with the domains the tests read enabled. */
  async page(width = 1280, height = 1000): Promise<Page> {
    const { targetId } = await this.send("Target.createTarget", { url: "about:blank" });
    const { sessionId } = await this.send("Target.attachToTarget", { targetId, flatten: true });
    const s = (method: string, params: Record<string, unknown> = {}) => this.send(method, params, sessionId);
    for (const domain of ["Page", "Runtime", "Log", "Network"]) await s(`${domain}.enable`);
    await s("Emulation.setDeviceMetricsOverride", { width, height, deviceScaleFactor: 1, mobile: false });
    return new Page(this, sessionId);
  }

  close(): void {
    try {
      (this.child.stdio[3] as Writable).write(`${JSON.stringify({ id: ++this.id, method: "Browser.close" })}\0`);
    } catch {
      /* gone already */
    }
    setTimeout(() => this.child.kill("SIGKILL"), 2000).unref();
    this.child.once("exit", () => rmSync(this.profile, { recursive: true, force: true }));
  }
}

export class Page {
  constructor(
    private readonly browser: Browser,
    readonly sessionId: string,
  ) {}

  send(method: string, params: Record<string, unknown> = {}): Promise<any> {
    return this.browser.send(method, params, this.sessionId);
  }

  /** Navigate and wait for the load event. */
  async open(url: string): Promise<void> {
    const from = this.browser.events.length;
    await this.send("Page.navigate", { url });
    await this.browser.waitFor("Page.loadEventFired", from);
  }

  async evaluate<T>(expression: string): Promise<T> {
    const r = await this.send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error(`page threw: ${JSON.stringify(r.exceptionDetails)}`);
    return r.result.value as T;
  }

  /** This page's events. */
  events(): CdpEvent[] {
    return this.browser.events.filter((e) => e.sessionId === this.sessionId);
  }

  /** Console errors, uncaught exceptions and error log entries (a CSP violation is one). */
  errors(): string[] {
    return this.events().flatMap((e) => {
      if (e.method === "Runtime.exceptionThrown") return [JSON.stringify(e.params.exceptionDetails?.text ?? e.params)];
      if (e.method === "Runtime.consoleAPICalled" && (e.params.type === "error" || e.params.type === "assert")) return [JSON.stringify(e.params.args)];
      if (e.method === "Log.entryAdded" && e.params.entry.level === "error") return [e.params.entry.text];
      return [];
    });
  }

  /** Every URL the page asked for. */
  requests(): string[] {
    return this.events().filter((e) => e.method === "Network.requestWillBeSent").map((e) => e.params.request.url);
  }
}

/** Whether Chromium can start here (the tests say why they cannot run instead of passing silently). */
export function chromiumWorks(): boolean {
  if (!CHROMIUM) return false;
  return spawnSync(CHROMIUM, ["--headless", "--no-sandbox", "--version"], { encoding: "utf8", timeout: 30_000 }).status === 0;
}
