// `vsce package --no-dependencies` (the pinned @vscode/vsce, examples/vscode's dev package) makes
// the .vsix offline; the test reads the zip's central directory itself and checks it holds both
// bundles, byte for byte, and a manifest whose `main` and `browser` name them.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { inflateRawSync } from "node:zlib";
import { extensionDir, packVsix } from "./setup.mjs";

const work = mkdtempSync(join(tmpdir(), "memdir-vsix-"));
after(() => rmSync(work, { recursive: true, force: true }));

/** The entries of a zip: name → bytes (stored or deflated), from its central directory. */
function unzip(zip) {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(eocd >= 0, "no end of central directory");
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const files = new Map();
  for (let i = 0; i < count; i++) {
    assert.equal(zip.readUInt32LE(at), 0x02014b50, "central directory entry");
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString("utf8", at + 46, at + 46 + nameLength);
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(dataAt, dataAt + compressed);
    files.set(name, method === 8 ? inflateRawSync(raw) : raw);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}

test("vsce package makes a .vsix with both bundles and the manifest pointing at them", () => {
  const vsix = join(work, "memdir.vsix");
  const result = packVsix(vsix);
  assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
  const files = unzip(readFileSync(vsix));
  assert.deepEqual([...files.keys()].sort(), ["[Content_Types].xml", "extension.vsixmanifest", "extension/LICENSE.txt", "extension/dist/desktop.js", "extension/dist/web.js", "extension/package.json", "extension/readme.md"]);
  const manifest = JSON.parse(files.get("extension/package.json").toString("utf8"));
  assert.equal(manifest.main, "./dist/desktop.js");
  assert.equal(manifest.browser, "./dist/web.js");
  for (const bundle of ["desktop.js", "web.js"]) assert.ok(files.get(`extension/dist/${bundle}`).equals(readFileSync(join(extensionDir, "dist", bundle))), bundle);
  const xml = files.get("extension.vsixmanifest").toString("utf8");
  assert.match(xml, /<Identity [^>]*Id="memdir-vscode"[^>]*Publisher="memdir"/);
  assert.match(xml, /<Tags>__web_extension<\/Tags>/, "tagged a web extension (it has `browser`)");
  assert.match(xml, /Id="Microsoft\.VisualStudio\.Code\.ExtensionKind" Value="workspace,web"/);
  console.log(`vsix ${statSync(vsix).size} B`);
});
