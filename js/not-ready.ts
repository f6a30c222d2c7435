/**
 * What a call made before the module is loaded says (`NOT_INITIALIZED`). The browser entry
 * keeps the default; the Node entry says why the file next to it could not be read.
 */
let message = "memdir is not initialised: call `await init()` first";

export function notReadyMessage(): string {
  return message;
}

export function explainNotReady(why: string): void {
  message = why;
}
