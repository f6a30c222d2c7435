// Error bodies that echo the request, as a provider or a proxy in front of it may send them
// (issue 21, defect 2), for the mock's `echo` outcome, and the forms of a key such an echo may
// leave in a message. Shared by the library's, the CLI's and the MCP server's tests.

// keys with the characters an echo escapes: JSON (`"`, `\`, `/`) and URL encoding (`/`, `+`, `=`)
export const ANTHROPIC_KEY = 'sk-ant-echo"/+=\\Zq8xW2rT9vLmN4pKa7';
export const OPENAI_KEY = 'sk-proj-echo"/+=\\Hy3uQ6nB1cVx8sDf0';

/** What an echo may leave of `key`: itself, its JSON and URL forms, and long pieces of it. */
export function forms(key) {
  const json = JSON.stringify(key).slice(1, -1);
  return [key, json, json.replaceAll("/", "\\/"), encodeURIComponent(key), key.slice(0, 16), key.slice(-12), key.slice(6, 18)];
}

/** Fails when `text` holds any form of any of `keys`. */
export function assertNoKey(assert, text, keys, where) {
  for (const key of keys) for (const form of forms(key)) assert.ok(!text.includes(form), `${where} holds ${JSON.stringify(form)}:\n${text}`);
}

/**
 * Error bodies that quote the request's `header` (whose value holds `key`): an envelope naming
 * it, one holding every header as JSON, a proxy's plain-text page, the value URL-encoded, and a
 * piece of the key. The 500s say not to retry.
 */
export function echoes(header, key) {
  const noRetry = { "x-should-retry": "false" };
  return [
    { status: 401, echo: true, body: { type: "error", error: { type: "authentication_error", message: `invalid ${header}: {{header:${header}}}` } } },
    { status: 500, echo: true, headers: noRetry, body: { error: { message: "upstream rejected the request; its headers: {{headers}}", type: "proxy_error" } } },
    { status: 500, echo: true, headers: { ...noRetry, "content-type": "text/plain" }, body: `Bad gateway. {{header:${header}}} {{headers}}` },
    { status: 401, echo: true, body: { error: `key={{header-uri:${header}}} refused` } },
    { status: 401, body: { error: { message: `Incorrect API key provided: ${key.slice(0, 20)}…${key.slice(-4)}`, type: "invalid_request_error" } } },
  ];
}
