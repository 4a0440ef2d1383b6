//! Mimic joints: the joint each one follows, and the refusals of a `<mimic>` that names no
//! joint, a fixed joint, or closes a cycle of joints following each other (or itself). A
//! `<mimic>` on a fixed joint means nothing (urdfdom and Pinocchio load it and ignore it):
//! users lock a finger of a gripper by changing its type alone.

use super::failure::FileError;
use super::xml::Joint;

/// For each joint, the joint it follows (by index), `None` for a joint that follows none.
pub fn leaders(joints: &[Joint]) -> Result<Vec<Option<usize>>, FileError> {
    let mut leader = vec![None; joints.len()];
    for (j, joint) in joints.iter().enumerate() {
        let Some((other, ..)) = &joint.mimic else {
            continue;
        };
        if joint.kind.motion().is_none() {
            continue;
        }
        let Some(o) = joints.iter().position(|k| &k.name == other) else {
            return Err((
                Some(joint.line),
                format!("joint `{}` mimics no joint `{other}`", joint.name),
            ));
        };
        if joints[o].kind.motion().is_none() {
            return Err((
                Some(joint.line),
                format!(
                    "joint `{}` mimics `{other}`, a fixed joint, which has no coordinate",
                    joint.name
                ),
            ));
        }
        leader[j] = Some(o);
    }
    if let Some(cycle) = mimic_cycle(&leader) {
        return Err((Some(joints[cycle[0]].line), cycle_message(joints, &cycle)));
    }
    Ok(leader)
}

/// The first cycle of mimic joints, in the order of the file, each joint of it followed by
/// the one it mimics (one joint when it mimics itself): `leader[j]` is the joint that joint
/// `j` mimics.
fn mimic_cycle(leader: &[Option<usize>]) -> Option<Vec<usize>> {
    for start in 0..leader.len() {
        let mut path = vec![start];
        let mut at = start;
        while let Some(next) = leader[at] {
            if let Some(k) = path.iter().position(|&p| p == next) {
                let cycle = &path[k..];
                // From its first joint in the file, so that each cycle is told one way.
                let first = (0..cycle.len()).min_by_key(|&i| cycle[i]).unwrap_or(0);
                return Some([&cycle[first..], &cycle[..first]].concat());
            }
            path.push(next);
            at = next;
        }
    }
    None
}

/// Why a cycle of mimic joints is refused, naming each joint and its line.
fn cycle_message(joints: &[Joint], cycle: &[usize]) -> String {
    let first = &joints[cycle[0]];
    if let [_] = cycle {
        return format!(
            "joint `{}` mimics itself: its constraint q = {} q + {} holds it at one position \
             (or at none, or at every one), and a mimic joint follows another joint",
            first.name,
            first.mimic.as_ref().map_or(1.0, |m| m.1),
            first.mimic.as_ref().map_or(0.0, |m| m.2),
        );
    }
    let steps: Vec<String> = cycle
        .iter()
        .map(|&j| {
            let joint = &joints[j];
            let other = joint.mimic.as_ref().map_or("", |m| m.0.as_str());
            format!("`{}` (line {}) mimics `{other}`", joint.name, joint.line)
        })
        .collect();
    format!(
        "the mimic joints form a cycle: {}; each follows the next, so none moves on its own \
         and the constraints hold them at one position (or leave them undetermined)",
        steps.join(", ")
    )
}
