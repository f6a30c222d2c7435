/** A yes/no question on the terminal (stderr), for the commands that change files after showing the diff. */
import { createInterface } from "node:readline";

/** `true` for y or yes; anything else (or the input closing) is no. */
export async function ask(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await new Promise<string>((resolve) => {
      rl.question(question, resolve);
      rl.once("close", () => resolve(""));
    });
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    rl.close();
  }
}
