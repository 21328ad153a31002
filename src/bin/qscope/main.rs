//! `qscope`, the native command-line tool: evaluate, list and plot quantizers, train small
//! quantized networks, check and export classroom lessons.

mod args;
mod bench;
mod eval;
#[cfg(not(target_arch = "wasm32"))]
mod handout;
mod lesson;
mod list;
mod plot;
mod train;

use std::process::ExitCode;

const USAGE: &str = "\
qscope — what a quantizer really computes, forward and backward

USAGE:
    qscope eval SPEC [--seed N] [--infer] [--report]   numbers on stdin → `x y dydx` lines
    qscope list [FAMILY]                               every quantizer, parameters, defaults
    qscope plot SPEC... -o FILE.svg|FILE.png [options] forward + backward figure, up to 6 specs
    qscope gallery DIR                                 one SVG per quantizer, and an index.html
    qscope bench [--n 1000000,4000000] [--reps 15]     native throughput as JSON rows
    qscope train [options] [--json]                    train a small quantized MLP, per-epoch metrics
    qscope train --bench [--arch 2-8-8-1,...]          training throughput as JSON rows
    qscope lesson check FILE                           validate a lesson (FILE or - for stdin)
    qscope lesson link FILE [--step K]                 the #lesson=~… link that carries it
    qscope lesson export FILE -o DIR                   DIR/index.html: a printable handout
    qscope help | --help | --version

SPEC examples:
    'qkeras.quantized_bits(4,0,1,alpha=1)'   'larq.SteTern(threshold_value=0.1)'
    'larq.ste_sign'   'softround'   'lsq(bits=4, step=0.1)'
    'quantized_bits(4,0,1)'   '{\"class_name\": \"quantized_bits\", \"config\": {\"bits\": 4}}'

eval reads whitespace-separated numbers (nan, inf, -inf accepted) as one tensor and prints
one line per input: x, y = q(x), and dydx = ∂(Σy)/∂x as the library's autodiff gives it.
  --seed N   seed of the random stream of stochastic quantizers (default 0)
  --infer    inference behaviour (Keras learning phase 0); training is the default
  --report   print data-dependent numbers (scale, threshold, parameter gradients) to stderr

plot draws the forward panel y = q(x) above the backward panel dy/dx, the specs compared in
one figure (Okabe–Ito colours and dash patterns), as SVG or as PNG at 2×; the specs, the
permalink and the version are embedded in the file.
  -o FILE           output file, .svg or .png (required)
  --x LO,HI         x range (default -2,2)
  --width W         figure width in pixels (default 720; the PNG has 2×)
  --height H        figure height in pixels (default 640)
  --crosshair X     draw a vertical line at X and print every curve's y and dy/dx there
  --identity        draw y = x faintly in the forward panel
  --dark            dark theme
  --seed N, --infer as for eval

train trains an MLP on a generated 2-D dataset (TF Playground's) and prints, per epoch, the
train and test loss and accuracy (evaluation mode); the same options give the same numbers.
  --dataset NAME      circle, xor, gaussian, spiral, moons, checkerboard, sine (default circle)
  --hidden W,W,...    hidden widths (default 4,2; `--hidden ''` for none)
  --activation A      tanh, relu, sigmoid, linear, or a quantizer SPEC (default tanh)
  --wq SPEC           weight quantizer of every hidden layer (one tensor per layer)
  --aq SPEC           activation quantizer after every hidden activation
  --wqN SPEC --aqN SPEC  hidden layer N's (from 1) weight / activation quantizer instead
                      ('' for float), e.g. --wq1 'larq.ste_sign'
  --quantize-output   also quantize the output layer's weights with --wq
  --loss L            mse (tanh output, labels ±1), bce (sigmoid), softmax (default mse)
  --optimizer O       sgd or adam (default sgd); --momentum M for sgd (default 0)
  --lr X --batch N    learning rate (default 0.03) and batch size (default 10)
  --l1 X --l2 X       weight penalties (default 0)
  --init I            auto, glorot or he (default auto: he for relu, else glorot)
  --features F,...    x1, x2, x1sq, x2sq, x1x2, sinx1, sinx2 (default x1,x2)
  --noise X           0 to 0.5 as Playground's 0–50 % (default 0)
  --samples N         points generated (default 500); --train-ratio X (default 0.5)
  --epochs N          (default 100); --seed N (default 0)
  --json              one JSON object per epoch: epoch, train_loss, test_loss, train_acc, test_acc
  --bench             instead, measure training throughput (samples/s) of --arch networks
                      (default 2-8-8-1,2-64-64-64-1) at --batch (default 10) for --seconds
                      (default 1) each; --quantized adds 4-bit rows

lesson works on a classroom lesson (Markdown: `# Title`, `## Step` sections, a ```qscope block
of key=value settings per step; see the README).
  check    prints `ok: N steps`, or one line per problem, `FILE:LINE: step K \"title\": message`
           (settings, quantizers, tasks, formulas), and fails
  link     prints `#lesson=~…` (the lesson's text, DEFLATE, base64url); --step K adds `&step=K`
  export   writes DIR/index.html: each step's text (formulas as MathML), task and figure (SVG;
           a trainer step's net trained for 200 epochs, its decision boundary), no script
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        // Already reported (e.g. `lesson check`'s one line per problem).
        Err(e) if e.is_empty() => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("qscope: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        Some("eval") => eval::eval(&args[1..]),
        Some("list") => list::list(args.get(1).map(String::as_str)),
        Some("plot") => plot::plot(&args[1..]),
        Some("gallery") => plot::gallery(&args[1..]),
        Some("bench") => bench::bench(&args[1..]),
        Some("train") => train::train(&args[1..]),
        Some("lesson") => lesson::lesson(&args[1..]),
        Some("help" | "--help" | "-h") | None => {
            print!("{USAGE}");
            Ok(())
        }
        Some("--version" | "-V") => {
            println!("qscope {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        Some(other) => Err(format!("unknown command '{other}' (try `qscope --help`)")),
    }
}
