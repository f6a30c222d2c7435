export default { build: { target: "es2022", assetsInlineLimit: 0, chunkSizeWarningLimit: 10000 }, worker: { format: "es" }, logLevel: "warn" };
