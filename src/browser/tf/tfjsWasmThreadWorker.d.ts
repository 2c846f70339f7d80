/** The pthread worker's source that tfjs-backend-wasm ships as a string (the package has no types for it). */
declare module '@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm-threaded-simd.worker.js' {
  export const wasmWorkerContents: string;
}
