"""torch.optim.LBFGS: limited-memory BFGS (Nocedal & Wright, Numerical Optimization, 2nd ed.,
Algorithm 7.4), optionally with a strong-Wolfe line search (their Algorithms 3.5 and 3.6).

L-BFGS needs the loss at points of its choosing, so step(closure) calls `closure` (zero the
gradients, compute the loss, backward, return the loss) as often as it needs, up to max_eval
times. All parameters are one flat vector x: each iteration turns the gradient g into a
direction d = -H g by the two-loop recursion over the last `history_size` pairs
s = x_{k+1} - x_k, y = g_{k+1} - g_k (with H_0 = (s·y / y·y) I), then moves x by t d.

Unlike the other optimizers, whose per-element update loops are C++, this one is Python driving
whole-vector C++ ops (dot, add_, cat) as torch's own LBFGS does: its cost is the closure calls
and O(history_size · n) vector work per iteration, never a Python loop over elements. Its state
is torch's (func_evals, n_iter, d, t, old_dirs, old_stps, ro, H_diag, prev_flat_grad,
prev_loss, al), kept on the first parameter, so state dicts move between the two."""
import math

from .. import _core
from .._core import cat
from ..autograd import enable_grad, no_grad
from .optimizer import Optimizer, _as_seqlab, _group_dict, _is_placeholder, _param_groups


class LBFGS(Optimizer):
    """L-BFGS, torch.optim.LBFGS's arguments and defaults. One parameter group only.

    lr: the step length (the first iteration's is min(1, 1/|g|_1)·lr); max_iter: iterations per
    step(); max_eval: closure calls per step() (default max_iter·5/4); tolerance_grad: stop when
    max|g| falls to it; tolerance_change: stop when the loss or the step changes less;
    history_size: (s, y) pairs kept; line_search_fn: None (fixed step t) or "strong_wolfe"."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        if line_search_fn not in (None, "strong_wolfe"):
            raise RuntimeError("only 'strong_wolfe' is supported")
        self.defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                             tolerance_change=tolerance_change, history_size=history_size,
                             line_search_fn=line_search_fn)
        self._state = {}
        self.param_groups = []
        for g in _param_groups(params):
            self.add_param_group(g)        # a second group is refused there

    # ------------------------------------------------------------------ Optimizer's interface
    def add_param_group(self, param_group):
        if self.param_groups:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        group = _group_dict(param_group)
        for p in group["params"]:
            if not _is_tensor(p):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}")
            if _is_placeholder(p):
                continue   # a lazy module's placeholder: the first closure call gives it its data in place
            if not p.is_floating_point():
                raise TypeError(f"LBFGS: can only optimize floating-point tensors, got {p.dtype}")
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        self.param_groups.append(group)

    @property
    def _params(self):
        return self.param_groups[0]["params"]

    @property
    def state(self):
        """torch's layout: everything on the first parameter (optimizer.state[params[0]])."""
        return {self._params[0]: self._state} if self._state else {}

    def zero_grad(self, set_to_none=True):
        for p in self._params:
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                p.grad.zero_()

    def state_dict(self):
        group = {k: v for k, v in self.param_groups[0].items() if k != "params"}
        group["params"] = list(range(len(self._params)))
        state = {0: {k: _copy(v) for k, v in self._state.items()}} if self._state else {}
        return {"state": state, "param_groups": [group]}

    def load_state_dict(self, state_dict):
        from .._tensor import as_tensor
        groups = state_dict["param_groups"]
        if len(groups) != 1:
            raise ValueError("loaded state dict has a different number of parameter groups")
        if len(groups[0]["params"]) != len(self._params):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        dtype = self._params[0].dtype
        convert = lambda v: _as_seqlab(v, as_tensor).to(dtype) if _is_array(v) else v  # noqa: E731
        st = next(iter(state_dict["state"].values()), {}) if state_dict["state"] else {}
        self._state = {k: ([convert(x) for x in v] if isinstance(v, list) else convert(v)) for k, v in st.items()}
        for key, value in groups[0].items():
            if key != "params":
                self.param_groups[0][key] = value

    # ------------------------------------------------------------------ the flat vector x
    def _numel(self):
        return sum(p.numel() for p in self._params)

    def _gather_flat_grad(self):
        """g as one vector (zeros for a parameter without a gradient)."""
        return cat([p.new_zeros(p.numel()) if p.grad is None else p.grad.reshape(-1) for p in self._params])

    def _add_grad(self, step_size, update):
        """x += step_size · update."""
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(update[offset:offset + n].reshape(p.shape), alpha=step_size)
            offset += n

    def _clone_param(self):
        return [p.clone() for p in self._params]

    def _set_param(self, values):
        for p, v in zip(self._params, values):
            p.copy_(v)

    def _directional_evaluate(self, closure, x, t, d):
        """(f(x + t d), ∇f(x + t d)), leaving the parameters at x."""
        self._add_grad(t, d)
        with enable_grad():
            loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    # ------------------------------------------------------------------ one step
    @no_grad()
    def step(self, closure):
        """Up to max_iter L-BFGS iterations; returns the loss the first closure call gave."""
        if not callable(closure):
            raise TypeError(f"LBFGS.step(): closure must be a function that reevaluates the model and returns the "
                            f"loss, got {type(closure).__name__}")
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        history_size, line_search_fn = group["history_size"], group["line_search_fn"]

        state = self._state
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1

        flat_grad = self._gather_flat_grad()
        opt_cond = flat_grad.abs().max().item() <= tolerance_grad
        if opt_cond:                 # already optimal
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag, prev_flat_grad, prev_loss = state.get("H_diag"), state.get("prev_flat_grad"), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # the direction d = -H g
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad.sub(prev_flat_grad)        # y_k = g_{k+1} - g_k
                s = d.mul(t)                              # s_k = x_{k+1} - x_k
                ys = y.dot(s)
                if ys > 1e-10:                            # keep the pair only if the curvature is positive
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)                # H_0 = (s·y / y·y) I
                # two-loop recursion: q = -g; back through the history, then forward
                num_old = len(old_dirs)
                al = state.setdefault("al", [None] * history_size)
                if len(al) < num_old:
                    al.extend([None] * (num_old - len(al)))
                q = flat_grad.neg()
                for i in range(num_old - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q.add_(old_dirs[i], alpha=-al[i].item())
                d = r = q.mul(H_diag)
                for i in range(num_old):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r.add_(old_stps[i], alpha=(al[i] - be_i).item())

            prev_flat_grad = flat_grad.clone()
            prev_loss = loss

            # the step length: a cautious first step, lr after that
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / flat_grad.abs().sum().item()) * lr
            else:
                t = lr

            gtd = flat_grad.dot(d).item()                 # directional derivative
            if gtd > -tolerance_change:                   # not a descent direction
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                x_init = self._clone_param()

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                # the line search may spend what is left of max_eval
                loss, flat_grad, t, ls_func_evals = _strong_wolfe(obj_func, x_init, t, d, loss, flat_grad, gtd,
                                                                  max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max().item() <= tolerance_grad
            else:
                self._add_grad(t, d)                      # x += t d
                if n_iter != max_iter:                    # re-evaluate unless this was the last iteration
                    with enable_grad():
                        loss = float(closure())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max().item() <= tolerance_grad
                    ls_func_evals = 1

            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max().item() <= tolerance_change:   # the step is too small
                break
            if abs(loss - prev_loss) < tolerance_change:           # the loss no longer changes
                break

        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, clipped to
    `bounds` (default: between x1 and x2); their midpoint when the cubic has no minimum
    (Nocedal & Wright eq. 3.59)."""
    xmin_bound, xmax_bound = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 * d1 - g1 * g2
    if d2_square >= 0:
        d2 = math.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step t satisfying the strong Wolfe conditions
        f(x + t d) <= f(x) + c1 t g·d   (sufficient decrease)   and   |∇f(x + t d)·d| <= c2 |g·d|
    by bracketing (Nocedal & Wright Algorithm 3.5) then zooming with cubic interpolation
    (Algorithm 3.6). Returns (f, g at the step, t, number of evaluations)."""
    d_norm = d.abs().max().item()
    g = g.clone()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d).item()

    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    ls_iter = 0
    bracket = bracket_f = bracket_g = bracket_gtd = None
    while ls_iter < max_ls:
        # bracketing: an interval that contains a point satisfying the conditions
        if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break
        # extrapolate by cubic interpolation, between 1.01 t and 10 t
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.clone(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d).item()
        ls_iter += 1

    if ls_iter == max_ls:          # out of evaluations: the interval from 0
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # zoom: shrink the bracket until a point satisfies the conditions
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        # a point too close to an end of the bracket makes little progress: move it inwards
        hi, lo = max(bracket), min(bracket)
        eps = 0.1 * (hi - lo)
        if min(hi - t, t - lo) < eps:
            if insuf_progress or t >= hi or t <= lo:
                t = hi - eps if abs(t - hi) < abs(t - lo) else lo + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False

        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d).item()
        ls_iter += 1

        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low_pos]:
            # not enough decrease: t becomes the high end
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.clone(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                # the slope points out of the bracket: the old low end becomes the high end
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos], bracket_gtd[high_pos] = bracket_g[low_pos], bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.clone(), gtd_new

    t, f_new, g_new = bracket[low_pos], bracket_f[low_pos], bracket_g[low_pos]
    return f_new, g_new, t, ls_func_evals


def _is_tensor(x):
    return isinstance(x, _core.Tensor)


def _is_array(v):
    """A state entry that is a tensor (seqlab's or torch's) or an array, not a count or None."""
    return _is_tensor(v) or hasattr(v, "__dlpack__") or hasattr(v, "__array_interface__")


def _copy(v):
    if isinstance(v, list):
        return [_copy(x) for x in v]
    return v.clone() if _is_tensor(v) else v
