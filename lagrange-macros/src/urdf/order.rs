//! The robot as a tree: its root link, the one that is no joint's child, and its joints in
//! the order of a depth-first walk from it, a link's child joints in the order of the file;
//! and the refusals of a file that is not one tree (no links, two roots, a loop of joints
//! with or without a root beside it).

use super::failure::FileError;
use super::xml::{Joint, Link, Urdf};

/// The root link and the joints of a walk from it, each after its parent link's joint.
pub struct Walk {
    pub root: usize,
    pub order: Vec<usize>,
}

/// The walk of the robot's tree, or why its joints are not one tree.
pub fn walk(robot: &Urdf) -> Result<Walk, FileError> {
    let (links, joints) = (&robot.links, &robot.joints);
    if links.is_empty() {
        return Err((None, "the robot has no links".into()));
    }
    // The root: the one link that is no joint's child.
    let children: Vec<usize> = joints.iter().map(|j| j.child).collect();
    let roots: Vec<usize> = (0..links.len()).filter(|l| !children.contains(l)).collect();
    let root = match roots.as_slice() {
        [root] => *root,
        [] => return Err(loop_error(links, joints)),
        [a, b, ..] => {
            return Err((
                Some(links[*b].line),
                format!(
                    "two root links, `{}` and `{}`: a robot is one tree",
                    links[*a].name, links[*b].name
                ),
            ))
        }
    };
    // Depth first from the root, a link's child joints in file order.
    let mut order = Vec::new();
    let mut stack = vec![root];
    let mut seen = vec![false; links.len()];
    while let Some(link) = stack.pop() {
        seen[link] = true;
        let below: Vec<usize> = (0..joints.len())
            .filter(|&j| joints[j].parent == link)
            .collect();
        for &j in below.iter().rev() {
            stack.push(joints[j].child);
        }
        if link != root {
            let j = (0..joints.len())
                .find(|&j| joints[j].child == link)
                .expect("a child");
            order.push(j);
        }
    }
    if let Some(l) = (0..links.len()).find(|&l| !seen[l]) {
        return Err((
            Some(links[l].line),
            format!(
                "link `{}` is on a loop of joints, not below the root",
                links[l].name
            ),
        ));
    }
    Ok(Walk { root, order })
}

/// Where the joints of a file in which every link has a parent close a loop: from the
/// first link, up through the joints whose child it is, to the first link met twice; the
/// joint into it names the loop, at its line.
fn loop_error(links: &[Link], joints: &[Joint]) -> FileError {
    let mut met = vec![false; links.len()];
    let mut link = 0;
    loop {
        met[link] = true;
        let Some(j) = joints.iter().position(|j| j.child == link) else {
            unreachable!("every link has a parent when there is no root")
        };
        let parent = joints[j].parent;
        if met[parent] {
            return (
                Some(joints[j].line),
                format!(
                    "the joints form a loop, closed by joint `{}` (from `{}` to `{}`): no link \
                     is the root, and a robot is a tree",
                    joints[j].name, links[parent].name, links[joints[j].child].name
                ),
            );
        }
        link = parent;
    }
}
