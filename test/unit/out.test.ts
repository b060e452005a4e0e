// writeOut (src/lib/command/out.ts): the helper's output written with write(2), without building process.stdout.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createConnection, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeOut } from "../../src/lib/command/out.ts";

/** A connected pair of Unix sockets: `client` is non-blocking (libuv), `server` receives. */
async function socketPair(dir: string): Promise<{ client: Socket; server: Socket; close: () => void }> {
  const path = join(dir, "s.sock");
  const srv = createServer();
  const accepted = new Promise<Socket>((resolve) => srv.once("connection", resolve));
  await new Promise<void>((resolve) => srv.listen(path, resolve));
  const client = createConnection({ path, allowHalfOpen: true });
  await new Promise<void>((resolve) => client.once("connect", () => resolve()));
  const server = await accepted;
  server.pause();
  return { client, server, close: () => { client.destroy(); server.destroy(); srv.close(); } };
}

const fdOf = (s: Socket) => (s as unknown as { _handle: { fd: number } })._handle.fd;

describe("writeOut", () => {
  it("writes the whole text, multi-byte characters included, and leaves nothing over", () => {
    const dir = mkdtempSync(join(tmpdir(), "do-out-"));
    try {
      const file = join(dir, "out.txt");
      const fd = openSync(file, "w");
      const text = `${JSON.stringify({ ok: true, note: "été ✓ 𝄞", pad: "x".repeat(200_000) })}\n`;
      try {
        assert.equal(writeOut(fd, text), undefined);
      } finally {
        closeSync(fd);
      }
      assert.equal(readFileSync(file, "utf8"), text);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("hands back what a non-blocking socket does not take (EAGAIN), so the stream can finish it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "do-out-"));
    const { client, server, close } = await socketPair(dir);
    try {
      const text = "0123456789".repeat(800_000); // 8 MB: more than any socket buffer holds
      const rest = writeOut(fdOf(client), text);
      assert.ok(rest instanceof Buffer, "a full socket leaves a remainder");
      assert.ok(rest.length > 0 && rest.length < text.length);
      const received: Buffer[] = [];
      server.on("data", (c: Buffer) => received.push(c));
      const ended = new Promise<void>((resolve) => server.once("end", () => resolve()));
      server.resume();
      client.end(rest);
      await ended;
      assert.equal(Buffer.concat(received).toString("utf8"), text);
    } finally {
      close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("gives up without throwing when the reader is gone (EPIPE) or the fd is closed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "do-out-"));
    const { client, server, close } = await socketPair(dir);
    try {
      const fd = fdOf(client);
      server.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(writeOut(fd, "x".repeat(300_000)), undefined);
      assert.equal(writeOut(987_654, "{}\n"), undefined);
    } finally {
      close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
