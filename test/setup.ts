// tfjs-core registers no gradients by itself; the app (worker) and the Node CLIs register them at start-up, tests here.
import '@tensorflow/tfjs-core/dist/register_all_gradients';
