// What every bundled consumer does, Node or browser: scan a memory folder, recall with the
// offline lexical selector, recall through a model (the mock OpenAI-compatible server on
// 127.0.0.1, through the bundled fetch path), and check that errors are memdir's own.
export const QUERY = "how do we deploy to staging?";

export const FILES = {
  "MEMORY.md": "- [Deploy](project_deploy.md) — staging deploy checklist\n- [Role](user_role.md) — the user is a Go engineer\n",
  "project_deploy.md": "---\ndescription: staging deploy checklist and who signs off\ntype: project\n---\nRun the smoke tests first, then deploy to staging.\n",
  "user_role.md": "---\ndescription: the user is a Go engineer new to React\ntype: user\n---\nExplain UI in backend terms.\n",
};

export async function exercise(memdir, where, mockUrl) {
  const lexical = await memdir.openMemory({ ...where, selector: { provider: "lexical" } });
  const scan = await lexical.scan();
  const local = await lexical.recall(QUERY);
  const viaModel = await (await memdir.openMemory({ ...where, selector: { provider: "openai", baseUrl: `${mockUrl}/v1`, apiKey: "sk-openai-test", maxRetries: 0 } })).recall(QUERY);
  let refused = null;
  try {
    await lexical.forget("../outside.md");
  } catch (error) {
    refused = error instanceof memdir.MemdirError ? error.code : `not a MemdirError: ${error}`;
  }
  return {
    scanned: scan.memories.map((m) => m.path).sort(),
    lexical: { outcome: local.outcome, paths: local.memories.map((m) => m.path) },
    model: { outcome: viaModel.outcome, selector: viaModel.selector, paths: viaModel.memories.map((m) => m.path), error: viaModel.error ?? null },
    index: (await lexical.index()).prompt.includes("[Deploy](project_deploy.md)"),
    refused,
  };
}
